--[[
crossref.lua: colony's own cross-reference filter (a small pandoc-crossref substitute).

Labels:  figures  ![caption](img.png){#fig:x alt="..."}
         tables   ": caption {#tbl:x}"
         equations "$$ ... $$ {#eq:x}"
         sections "# Heading {#sec:x}"
References: @fig:x, [@tbl:x], @eq:x, @sec:x  ->  "Figure 1", "Table 1", "Equation 1", "Section 1".

HTML: numbers are computed here, captions are prefixed and references become links.
Typst: numbering is left to Typst (native @refs), but images carry their alt text and every
math span carries its TeX source as alt text, so the PDF can be tagged (PDF/UA-1).
Appendix: a Div with class "appendix" holds the appendix sections; its headings are lettered
(A, A.1, B, ...), in HTML by a prefix here and in Typst by a heading numbering reset.
Equations: in Typst the paragraph that introduces a display equation sticks to it, and the
equation to what follows, so a floating figure never lands between a sentence and its equation.
An unresolved reference becomes "??" and is reported on stderr as
"crossref: unresolved reference @<id>"; the build's validation treats that as an error.
Run it before --citeproc so citeproc never sees cross-reference keys.
]]

local PREFIXES = { fig = "Figure", tbl = "Table", eq = "Equation", sec = "Section" }
local is_typst = FORMAT:match("typst") ~= nil

local numbers = {}          -- id -> number text
local counters = { fig = 0, tbl = 0, eq = 0 }
local section_counts = {}
local appendix_counts = {}
local in_appendix = false
local appendix_labels = {}  -- header identifier (or its text) -> printed label, for HTML prefixes
local TYPST_APPENDIX = '#pagebreak(weak: true)\n#counter(heading).update(0)\n#set heading(numbering: "A.1")'

local function kind_of(id)
  local kind = id:match("^(%a+):")
  if kind and PREFIXES[kind] then return kind end
  return nil
end

local function typst_string(text)
  return '"' .. text:gsub("\\", "\\\\"):gsub('"', '\\"'):gsub("\n", " ") .. '"'
end

local function to_typst(blocks)
  local out = pandoc.write(pandoc.Pandoc(blocks), "typst")
  return (out:gsub("%s+$", ""))
end

local function sanitise_tex(tex)
  -- texmath turns these spacing macros into negative or zero spaces in Typst; drop them
  return (tex:gsub("\\!", ""):gsub("\\;", "\\,"))
end

local function typst_math(math_el, label, numbered)
  local body = to_typst({ pandoc.Plain({ pandoc.Math(math_el.mathtype, sanitise_tex(math_el.text)) }) })
  local settings = "alt: " .. typst_string(math_el.text)
  if numbered then settings = settings .. ', numbering: "(1)"' end
  local suffix = label and (" <" .. label .. ">") or ""
  return "#[#set math.equation(" .. settings .. ")\n" .. body .. suffix .. "]"
end

-- pass 0: raw HTML anchors (figure captions link to their sources) become real links -------

local function anchor_href(el)
  if el.t == "RawInline" and el.format == "html" then
    return el.text:match('^<a href="([^"]*)">$')
  end
  return nil
end

local function is_anchor_end(el)
  return el.t == "RawInline" and el.format == "html" and el.text == "</a>"
end

local function html_anchors(inlines)
  local out = pandoc.List()
  local i = 1
  while i <= #inlines do
    local href = anchor_href(inlines[i])
    local j = i + 1
    while href and j <= #inlines and not is_anchor_end(inlines[j]) do j = j + 1 end
    if href and j <= #inlines then
      out:insert(pandoc.Link(pandoc.List({ table.unpack(inlines, i + 1, j - 1) }), href))
      i = j + 1
    else
      out:insert(inlines[i])
      i = i + 1
    end
  end
  return out
end

-- pass 1: number every label in document order ------------------------------------------

local function header_key(h)
  if h.identifier ~= "" then return h.identifier end
  return "text:" .. pandoc.utils.stringify(h.content)
end

local function number_header(h)
  if h.classes:includes("unnumbered") then return end
  local level = h.level
  local counts = in_appendix and appendix_counts or section_counts
  counts[level] = (counts[level] or 0) + 1
  for deeper = level + 1, 9 do counts[deeper] = nil end
  local parts = {}
  for i = 1, level do parts[#parts + 1] = tostring(counts[i] or 0) end
  if in_appendix then parts[1] = string.char(64 + (counts[1] or 0)) end
  local label = table.concat(parts, ".")
  if h.identifier ~= "" then numbers[h.identifier] = label end
  if in_appendix then appendix_labels[header_key(h)] = label end
end

local function equation_label(para)
  local c = para.content
  if #c >= 2 and c[1].t == "Math" and c[1].mathtype == "DisplayMath" then
    local last = c[#c]
    if last.t == "Str" then
      local label = last.text:match("^{#(eq:[%w_%-%.:]+)}$")
      if label then return label end
    end
  end
  return nil
end

local number_part  -- defined below: numbers one top-level block

local function is_appendix(block)
  return block.t == "Div" and block.classes:includes("appendix")
end

local function number_blocks(doc)
  for _, block in ipairs(doc.blocks) do
    in_appendix = is_appendix(block)
    number_part(pandoc.Pandoc({ block }))
  end
  in_appendix = false
end

number_part = function(doc)
  doc:walk({
    traverse = "topdown",
    Header = function(h) number_header(h) end,
    Figure = function(f)
      counters.fig = counters.fig + 1
      if f.identifier ~= "" then numbers[f.identifier] = tostring(counters.fig) end
    end,
    Table = function(t)
      if #t.caption.long > 0 then
        counters.tbl = counters.tbl + 1
        if t.identifier ~= "" then numbers[t.identifier] = tostring(counters.tbl) end
      end
    end,
    Para = function(p)
      local label = equation_label(p)
      if label then
        counters.eq = counters.eq + 1
        numbers[label] = tostring(counters.eq)
      end
    end,
  })
end

-- pass 2: rewrite labels and references --------------------------------------------------

local function prefix_caption(caption, word, number)
  if #caption.long == 0 then return caption end
  local first = caption.long[1]
  if first.t == "Plain" or first.t == "Para" then
    first.content:insert(1, pandoc.Space())
    first.content:insert(1, pandoc.Strong({ pandoc.Str(word .. " " .. number .. ":") }))
  end
  return caption
end

local function figure_to_typst(f)
  local image = nil
  f.content:walk({ Image = function(img) image = image or img end })
  if image == nil then return nil end
  local src = image.src
  if not src:match("^/") and not src:match("^%a+:") then src = "/" .. src end
  local args = { typst_string(src) }
  if image.attributes.width then
    args[#args + 1] = "width: " .. image.attributes.width
  end
  -- the concise alternative text when the figure has one (PDF/UA), else the caption's text
  local alt = image.attributes.alt or pandoc.utils.stringify(image.caption)
  args[#args + 1] = "alt: " .. typst_string(alt)
  local caption = to_typst(f.caption.long)
  local label = f.identifier ~= "" and (" <" .. f.identifier .. ">") or ""
  return pandoc.RawBlock("typst",
    "#figure(image(" .. table.concat(args, ", ") .. "), caption: [" .. caption .. "])" .. label)
end

local function reference(id)
  local kind = kind_of(id)
  local number = numbers[id]
  if number == nil then
    io.stderr:write("crossref: unresolved reference @" .. id .. "\n")
    return pandoc.Span({ pandoc.Str("??") }, pandoc.Attr("", { "xref-unresolved" }, { { "data-ref", id } }))
  end
  if is_typst then return pandoc.RawInline("typst", "@" .. id) end
  return pandoc.Link({ pandoc.Str(PREFIXES[kind] .. "\u{a0}" .. number) }, "#" .. id, "", pandoc.Attr("", { "xref" }))
end

local function rewrite_cite(cite)
  local out = pandoc.List()
  local rest = pandoc.List()
  for _, citation in ipairs(cite.citations) do
    if kind_of(citation.id) then
      if #out > 0 then out:insert(pandoc.Str(", ")) end
      out:insert(reference(citation.id))
    else
      rest:insert(citation)
    end
  end
  if #out == 0 then return nil end
  if #rest > 0 then
    out:insert(pandoc.Space())
    out:insert(pandoc.Cite({ pandoc.Str("") }, rest))
  end
  return out
end

local function rewrite_equation(p)
  local label = equation_label(p)
  if label == nil then return nil end
  local math_el = p.content[1]
  if is_typst then return pandoc.RawBlock("typst", typst_math(math_el, label, true)) end
  local numbered = pandoc.Math("DisplayMath", math_el.text .. " \\qquad (" .. numbers[label] .. ")")
  return pandoc.Para({ pandoc.Span({ numbered }, pandoc.Attr(label, { "equation" })) })
end

-- appendix headings: lettered in HTML (prefix + unnumbered), a numbering reset in Typst -----

local function letter_html_headers(div)
  return div:walk({
    Header = function(h)
      local label = appendix_labels[header_key(h)]
      if label == nil then return nil end
      h.content:insert(1, pandoc.Space())
      h.content:insert(1, pandoc.Span({ pandoc.Str(label) }, pandoc.Attr("", { "header-section-number" })))
      h.classes:insert("unnumbered")
      return h
    end,
  })
end

local function unwrap_appendix(blocks)
  local out = pandoc.List()
  for _, block in ipairs(blocks) do
    if is_appendix(block) then
      if is_typst then
        out:insert(pandoc.RawBlock("typst", TYPST_APPENDIX))
        out:extend(block.content)
      else
        out:insert(letter_html_headers(block))
      end
    else
      out:insert(block)
    end
  end
  return out
end

-- Typst: keep a display equation with the sentence before it and the text after it ----------

local function is_equation_raw(block)
  return block.t == "RawBlock" and block.format == "typst" and block.text:find("#[#set math.equation(", 1, true) == 1
end

local function stick_equations(blocks)
  local out = pandoc.List()
  for i, block in ipairs(blocks) do
    local next_block = blocks[i + 1]
    if block.t == "Para" and next_block ~= nil and is_equation_raw(next_block) then
      out:insert(pandoc.RawBlock("typst", "#block(sticky: true)["))
      out:insert(block)
      out:insert(pandoc.RawBlock("typst", "]"))
    elseif is_equation_raw(block) then
      out:insert(pandoc.RawBlock("typst", "#block(sticky: true)[" .. block.text .. "]"))
    else
      out:insert(block)
    end
  end
  return out
end

function Pandoc(doc)
  doc = doc:walk({ Inlines = html_anchors })
  number_blocks(doc)
  doc = doc:walk({
    Para = rewrite_equation,
    Cite = rewrite_cite,
  })
  doc = doc:walk({
    Figure = function(f)
      if is_typst then return figure_to_typst(f) end
      f.caption = prefix_caption(f.caption, "Figure", numbers[f.identifier] or "")
      return f
    end,
    Table = function(t)
      if not is_typst and #t.caption.long > 0 and numbers[t.identifier] then
        t.caption = prefix_caption(t.caption, "Table", numbers[t.identifier])
      end
      return t
    end,
    Math = function(m)
      if is_typst then
        local raw = typst_math(m, nil, false)
        if m.mathtype == "InlineMath" then return pandoc.RawInline("typst", raw) end
        return pandoc.RawInline("typst", raw)
      end
      return nil
    end,
  })
  if is_typst then doc = doc:walk({ Blocks = stick_equations }) end
  doc.blocks = unwrap_appendix(doc.blocks)
  return doc
end
