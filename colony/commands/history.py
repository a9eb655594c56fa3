"""``colony history``: extract a real change history into a committed dataset, or verify one.

``colony history extract REPO_OR_BUNDLE --name N [--oidmap F] [--output data/history]``
writes ``<output>/<N>.jsonl.gz`` and ``<N>.manifest.json`` (byte-identical on every run),
showing a progress bar; per-commit work is cached under ``--cache`` (default
``output/.cache/history``). ``colony history study`` checks every committed dataset against its
manifest (a mismatch is an error: exit 2), replays each through the kernel under every condition
and variant, and writes ``output/history/study.json``. ``colony history agents REPO_OR_BUNDLE``
counts the commits of each agent and bot signature (``colony/config/agents.yaml``).
``colony history verify [MANIFEST...]``
checks committed datasets against their manifests and exits 1 on a mismatch.
``colony history report REPO_OR_DATASET [--output DIR]`` writes a report of one history (HTML, a
papermill-run notebook and its JSON) to ``output/history_report/<name>/``.
``colony history prior --data DIR [--dataset NAME ...] [--leave-out NAME] --output FILE`` fits a
change-risk prior on committed datasets (:mod:`colony.history.prior`) and prints its sha256.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

DEFAULT_OUTPUT = "data/history"
DEFAULT_CACHE = "output/.cache/history"


def register(subparsers: Any) -> None:
    """Add the ``history`` subcommand and its ``extract`` / ``verify`` actions."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "history",
        help="extract real change histories (SZZ labels, Kamei metrics) and verify committed datasets",
        description="Real agent and human change histories for the real-data study.",
    )
    actions = parser.add_subparsers(dest="history_action", metavar="ACTION")
    ex = actions.add_parser("extract", help="extract a repository or git bundle into data/history/<name>.jsonl.gz")
    ex.add_argument("source", metavar="REPO_OR_BUNDLE", help="a git repository directory or a git bundle file")
    ex.add_argument("--name", required=True, help="dataset name (letters, digits, '-', '_')")
    ex.add_argument(
        "--oidmap", help="'<bundle id> <upstream id>' per line (default: <bundle>.oidmap beside a bundle, if present)"
    )
    ex.add_argument("--upstream", help="upstream repository URL recorded in the manifest")
    ex.add_argument("--upstream-commit", help="upstream commit the bundle was made from (default: the upstream id of its head)")
    ex.add_argument("--output", default=DEFAULT_OUTPUT, help=f"output directory (default {DEFAULT_OUTPUT})")
    ex.add_argument("--cache", default=DEFAULT_CACHE, help=f"per-commit cache directory (default {DEFAULT_CACHE})")
    ex.add_argument(
        "--include",
        action="append",
        metavar="GLOB",
        help="diff and judge only files matching GLOB ('*' crosses '/'; repeatable; default: the config's, *.py)",
    )
    ex.add_argument(
        "--skip-missing", action="store_true", help="leave out commits whose included files' content is missing (counted)"
    )
    ex.add_argument("--config", help="a history.yaml (or a file with a history section) instead of the packaged one")
    ex.add_argument("--quiet", action="store_true", help="no progress bar")
    ex.add_argument("--json", action="store_true", help="print the manifest's counts as JSON")
    ex.set_defaults(func=extract_command, extra="research")
    st = actions.add_parser(
        "study", help="replay every committed dataset through the kernel and test the preregistered hypotheses"
    )
    st.add_argument("--data", default=DEFAULT_OUTPUT, help=f"dataset directory (default {DEFAULT_OUTPUT})")
    st.add_argument("--output", default="output/history", help="where study.json goes (default output/history)")
    st.add_argument(
        "--cache", default="output/.cache/history-study", help="per-evaluation cache (default output/.cache/history-study)"
    )
    st.add_argument("--config", help="a history.yaml to use instead of the packaged one")
    st.add_argument("--workers", type=int, default=2, help="Dask LocalCluster worker processes, 1 = in this process (default 2)")
    st.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="a running Dask scheduler (tcp://host:8786) instead; its workers must see --data and --config",
    )
    st.add_argument("--quiet", action="store_true", help="no progress lines")
    st.set_defaults(func=study_command, extra="research")
    ag = actions.add_parser("agents", help="count the commits of each agent and bot signature in a history")
    ag.add_argument("source", metavar="REPO_OR_BUNDLE", help="a git repository directory or a git bundle file")
    ag.add_argument("--config", help="a history.yaml whose agents.extra adds signature files (default: the packaged one)")
    ag.add_argument("--json", action="store_true", help="print the counts as JSON")
    ag.set_defaults(func=agents_command, extra="research")
    rp = actions.add_parser(
        "report", help="an HTML report (and its papermill-run notebook) of one repository's or dataset's history"
    )
    rp.add_argument(
        "source",
        metavar="REPO_OR_DATASET",
        help="a git repository directory or bundle (extracted first), a <name>.manifest.json, or a directory holding one",
    )
    rp.add_argument("--output", help="the report's directory (default output/history_report/<name>/)")
    rp.add_argument("--config", help="a history.yaml (or a file with a history section) instead of the packaged one")
    rp.add_argument("--top", type=int, default=20, help="how many of the riskiest changes to list (default 20)")
    rp.add_argument("--cache", default=DEFAULT_CACHE, help=f"per-commit extraction cache (default {DEFAULT_CACHE})")
    rp.add_argument(
        "--include", action="append", metavar="GLOB", help="extracting: judge only files matching GLOB (default: *.py)"
    )
    rp.add_argument("--skip-missing", action="store_true", help="extracting: leave out commits with missing blobs")
    rp.add_argument("--quiet", action="store_true", help="no progress")
    rp.add_argument("--json", action="store_true", help="print where the report went as JSON")
    rp.set_defaults(func=report_command, extra="research")
    pr = actions.add_parser(
        "prior", help="fit a change-risk prior on committed datasets (the packaged prior, or a study's leave-one-out one)"
    )
    pr.add_argument("--data", default=DEFAULT_OUTPUT, help=f"dataset directory (default {DEFAULT_OUTPUT})")
    pr.add_argument(
        "--dataset",
        action="append",
        metavar="NAME",
        help="fit on this dataset (repeatable; default: the configured datasets the directory holds, else all it holds)",
    )
    pr.add_argument("--leave-out", metavar="NAME", help="leave this dataset out (the study's prior for that repository)")
    pr.add_argument("--output", required=True, help="the prior file to write (.json.gz)")
    pr.add_argument("--config", help="a history.yaml (labels, horizon) instead of the packaged one")
    pr.add_argument("--json", action="store_true", help="print the prior's digest and provenance as JSON")
    pr.set_defaults(func=prior_command)
    ve = actions.add_parser("verify", help="check committed datasets against their manifests")
    ve.add_argument(
        "manifests", nargs="*", metavar="MANIFEST", help=f"manifest files (default: {DEFAULT_OUTPUT}/*.manifest.json)"
    )
    ve.add_argument("--json", action="store_true", help="print the result as JSON")
    ve.set_defaults(func=verify_command)

    def usage(args: argparse.Namespace) -> int:
        parser.print_help()
        return 2

    parser.set_defaults(func=usage)


def _progress_bar(desc: str, quiet: bool) -> tuple[Any, Any]:
    """A tqdm bar on stderr and the ``progress(done, total)`` callback extraction drives it with."""
    from tqdm import tqdm

    bar = tqdm(total=0, unit="commit", desc=desc, disable=quiet, file=sys.stderr)

    def progress(done: int, total: int) -> None:
        if bar.total != total:
            bar.reset(total=total)
        bar.n = done
        bar.refresh() if done == total or done % 25 == 0 else None

    return bar, progress


def extract_command(args: argparse.Namespace) -> int:
    from colony.history.extract import extract

    source = Path(args.source)
    oidmap = args.oidmap
    if oidmap is None and source.is_file() and source.with_suffix(".oidmap").is_file():
        oidmap = str(source.with_suffix(".oidmap"))
    bar, progress = _progress_bar(f"extract {args.name}", args.quiet)
    try:
        result = extract(
            source,
            name=args.name,
            output_dir=args.output,
            oidmap=oidmap,
            upstream_repository=args.upstream,
            upstream_commit=args.upstream_commit,
            cache_dir=args.cache,
            include=args.include,
            skip_missing=args.skip_missing,
            config=args.config,
            progress=progress,
        )
    finally:
        bar.close()
    counts = result.manifest["counts"]
    if args.json:
        print(json.dumps({"success": True, "manifest": result.manifest}, sort_keys=True))
    else:
        print(
            f"{args.name}: {counts['commits']} commits ({counts['merges']} merges), kinds {counts['kinds']}, "
            f"fixes {counts['fixes']}, {counts['commits_not_included']} touching no included file, "
            f"{counts['skipped_missing_blob']} skipped for a missing blob, sha256 {result.manifest['sha256_gz'][:16]}…"
        )
    return 0


def study_command(args: argparse.Namespace) -> int:
    from colony.errors import ValidationError
    from colony.history.study import run_study

    if args.workers < 1:
        raise ValidationError("--workers", "must be a positive integer", value=args.workers)

    def say(line: str) -> None:
        if not args.quiet:
            print(f"history study: {line}", file=sys.stderr, flush=True)

    result = run_study(
        data_dir=args.data,
        cache_dir=args.cache,
        config=args.config,
        workers=args.workers,
        scheduler=args.scheduler,
        progress=say,
    )
    out = Path(args.output)
    out.mkdir(parents=True, exist_ok=True)
    (out / "study.json").write_text(json.dumps(result, sort_keys=True, indent=1) + "\n", encoding="utf-8")
    families = [("first study", result["hypotheses"]["tests"])]
    if result.get("v2", {}).get("hypotheses"):
        families.append(("v2", result["v2"]["hypotheses"]["tests"]))
    for family, tests in families:
        for t in tests:
            if t["scope"] == "pooled" or not args.quiet:
                est = "n/a" if t["estimate"] is None else f"{t['estimate']:+.3f}"
                low, high, p_holm = t.get("low"), t.get("high"), t.get("p_holm")
                interval = f" [{low:+.3f}, {high:+.3f}]" if low is not None and high is not None else ""
                holm = "n/a" if p_holm is None else f"{p_holm:.4g}"
                verdict = "rejected" if t["reject"] else "not rejected"
                say(f"{family} {t['hypothesis']} {t['scope']}: {est}{interval} (Holm p={holm}) {verdict}")
    print(str(out / "study.json"))
    return 0


def agents_command(args: argparse.Namespace) -> int:
    from colony.history.config import load_history_config, signature_table
    from colony.history.repository import count_signatures

    counts = count_signatures(args.source, signature_table(load_history_config(args.config)))
    if args.json:
        print(json.dumps({"success": True, **counts}, sort_keys=True))
        return 0
    print(f"{args.source}: {counts['commits']} commits; " + ", ".join(f"{k} {n}" for k, n in counts["kinds"].items()))
    for sid, row in counts["signatures"].items():
        print(f"  {row['commits']:>7}  {sid:<28} {row['kind']:<6} {row['tool']}")
    return 0


def prior_command(args: argparse.Namespace) -> int:
    from colony.history.config import load_history_config
    from colony.history.prior import fit_history_prior, prior_datasets
    from colony.kernel.change_prior import write_prior

    cfg = load_history_config(args.config)
    names = prior_datasets(cfg, args.data, args.dataset, args.leave_out)
    prior = fit_history_prior(args.data, names, cfg)
    path = write_prior(prior, args.output)
    if args.json:
        payload = {"success": True, "path": str(path), "sha256": prior.sha256, "provenance": dict(prior.provenance)}
        print(json.dumps(payload, sort_keys=True))
    else:
        counts = prior.provenance["counts"]
        print(
            f"{path}: fitted on {', '.join(names)} ({counts['learned']} changes, {counts['failed']} failed), "
            f"{path.stat().st_size} bytes, sha256 {prior.sha256}"
        )
    return 0


def verify_command(args: argparse.Namespace) -> int:
    from colony.history.dataset import DatasetMismatchError, verify_dataset

    manifests = [Path(m) for m in args.manifests] or sorted(Path(DEFAULT_OUTPUT).glob("*.manifest.json"))
    results = []
    ok = True
    for m in manifests:
        try:
            manifest = verify_dataset(m)
            results.append({"manifest": str(m), "ok": True, "records": manifest["records"]})
        except DatasetMismatchError as exc:
            ok = False
            results.append({"manifest": str(m), "ok": False, "error": str(exc)})
    if args.json:
        print(json.dumps({"success": ok, "datasets": results}, sort_keys=True))
    else:
        for r in results:
            print(f"{r['manifest']}: " + (f"ok ({r['records']} records)" if r["ok"] else f"MISMATCH: {r['error']}"))
    return 0 if ok and manifests else 1


def report_command(args: argparse.Namespace) -> int:
    from colony.history.report_input import report_name
    from colony.history.report_write import write_report

    def say(line: str) -> None:
        if not args.quiet:
            print(f"history report: {line}", file=sys.stderr, flush=True)

    opened: list[Any] = []  # the extraction's bar, opened when a repository is extracted (a dataset needs none)

    def progress(done: int, total: int) -> None:
        if not opened:
            opened.extend(_progress_bar(f"extract {report_name(args.source)}", args.quiet))
        opened[1](done, total)

    try:
        files = write_report(
            args.source,
            output=args.output,
            config=args.config,
            top=args.top,
            cache_dir=args.cache,
            include=args.include,
            skip_missing=args.skip_missing,
            extract_progress=progress,
            say=say,
        )
    finally:
        if opened:
            opened[0].close()
    if args.json:
        paths = {"directory": files.directory, "json": files.json, "notebook": files.notebook, "html": files.html}
        print(json.dumps({"success": True, "name": files.name, **{k: str(v) for k, v in paths.items()}}, sort_keys=True))
    else:
        print(str(files.html))
    return 0
