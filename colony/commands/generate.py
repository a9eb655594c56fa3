"""``colony generate PROMPT``: code from a configured AI provider; printed or saved, never executed."""

from __future__ import annotations

import argparse
from typing import Any

from colony.commands._common import add_common, emit


def register(subparsers: Any) -> None:
    """Add the ``generate`` subcommand."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "generate",
        help="generate code with the configured AI provider (never executed)",
        description=(
            "Send the prompt to the AI provider configured by COLONY_AI_BASE_URL and COLONY_AI_MODEL (and "
            "COLONY_AI_API_KEY), an OpenAI-compatible chat-completions endpoint, and print the code it returns "
            "or write it to --output inside the project. Generated code is never executed."
        ),
    )
    parser.add_argument("prompt", help="what the code should do")
    parser.add_argument("--language", default="python", help="target language (default python)")
    parser.add_argument("--provider", default="openai", help="provider name (default openai: the configured endpoint)")
    parser.add_argument(
        "--output",
        metavar="FILE",
        help="write the code to this new file in the project (not in hidden directories such as .git/)",
    )
    parser.add_argument("--force", action="store_true", help="with --output: overwrite an existing file")
    parser.add_argument("--max-tokens", type=int, default=2048, help="maximum tokens in the answer (default 2048)")
    add_common(parser)
    parser.set_defaults(func=run)


def _text(result: dict[str, Any]) -> str:
    if result["output_path"]:
        return f"wrote {result['output_path']} ({result['model']}, {result['tokens_used']} tokens)\n"
    return str(result["code"])


def run(args: argparse.Namespace) -> int:
    """Generate and print or save the code."""
    from colony.cli_tools.generate import ai_generate

    result = ai_generate(
        args.prompt,
        language=args.language,
        provider=args.provider,
        output_path=args.output,
        max_tokens=args.max_tokens,
        project=args.project,
        force=args.force,
    )
    return emit(args, result, _text)
