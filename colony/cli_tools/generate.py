"""``cli_ai_generate``: code from a natural-language prompt, through a configured provider.

The prompt is checked (text, no control characters, bounded length), sent with a short
system message asking for one fenced code block, and the first fenced block of the
answer (or the whole answer) is returned. Generated code is only ever returned or, with
``output_path``, written to a new file inside the project (never into a hidden directory such
as ``.git/`` or ``.venv/``, never over an existing file without ``force``) — never imported
or executed.
"""

from __future__ import annotations

import os
import re
import unicodedata
from typing import Any, Final

from colony.cli_tools.failures import tool_errors
from colony.cli_tools.paths import find_project, relative, writable_inside, write_new_file
from colony.cli_tools.providers import ProviderError, get_provider
from colony.errors import ValidationError

__all__ = ["LANGUAGES", "MAX_PROMPT_CHARS", "ai_generate", "extract_code"]

PREFIX = "Generation failed"
MAX_PROMPT_CHARS: Final = 20_000
MAX_TOKENS_LIMIT: Final = 32_768
DEFAULT_MAX_TOKENS: Final = 2048
LANGUAGES: Final = frozenset(
    {"python", "typescript", "javascript", "bash", "sql", "rust", "go", "java", "c", "cpp", "julia", "r", "yaml", "json", "toml"}
)
_FENCE: Final = re.compile(r"```[ \t]*([\w+#.-]*)[ \t]*\n(.*?)```", re.DOTALL)


def extract_code(text: str) -> str:
    """The first fenced code block of ``text``, or the stripped text when there is none.

    >>> extract_code("Here:\\n```python\\nprint(1)\\n```\\nDone.")
    'print(1)\\n'
    """
    match = _FENCE.search(text)
    return match.group(2) if match else text.strip() + "\n"


def _clean_prompt(prompt: Any) -> str:
    if not isinstance(prompt, str):
        raise ValidationError("prompt", "must be text", value=prompt)
    text = "".join(ch for ch in prompt if ch in "\n\t" or unicodedata.category(ch)[0] != "C").strip()
    if not text:
        raise ValidationError("prompt", "must not be empty")
    if len(text) > MAX_PROMPT_CHARS:
        raise ValidationError("prompt", f"must be at most {MAX_PROMPT_CHARS} characters", value=len(text))
    return text


@tool_errors(PREFIX)
def ai_generate(
    prompt: str,
    *,
    language: str = "python",
    provider: str = "openai",
    output_path: str | None = None,
    max_tokens: int = DEFAULT_MAX_TOKENS,
    project: str | os.PathLike[str] | None = None,
    force: bool = False,
) -> dict[str, Any]:
    """Generate ``language`` code for ``prompt``; write it to ``output_path`` (in the project) if given.

    ``output_path`` must not be in a hidden directory or a virtual environment, and an
    existing file is only overwritten with ``force`` (see :func:`~colony.cli_tools.paths.writable_inside`).
    """
    text = _clean_prompt(prompt)
    lang = language.strip().lower() if isinstance(language, str) else language
    if lang not in LANGUAGES:
        raise ValidationError("language", f"must be one of {', '.join(sorted(LANGUAGES))}", value=language)
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or not 1 <= max_tokens <= MAX_TOKENS_LIMIT:
        raise ValidationError("max_tokens", f"must be an integer in [1, {MAX_TOKENS_LIMIT}]", value=max_tokens)
    if not isinstance(force, bool):
        raise ValidationError("force", "must be true or false", value=force)
    target = None
    root = None
    if output_path:
        root = find_project(project)
        target = writable_inside(root, output_path, field="output_path", force=force)
    chosen = get_provider(provider)
    system = f"You write {lang} code. Answer with exactly one fenced code block containing the complete code, and nothing else."
    completion = chosen.complete(system, text, max_tokens=max_tokens)
    code = extract_code(completion.text)
    if not code.strip():
        raise ProviderError("the provider returned no code")
    result: dict[str, Any] = {
        "success": True,
        "code": code,
        "language": lang,
        "provider": chosen.name,
        "model": completion.model,
        "tokens_used": completion.tokens_used,
        "output_path": None,
    }
    if target is not None and root is not None:
        write_new_file(root, target, code, field="output_path", force=force)
        result["output_path"] = relative(root, target)
    return result
