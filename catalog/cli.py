"""Command line: ``python -m catalog.cli build`` builds the catalog from the seed if it is missing."""

from __future__ import annotations

import argparse
import sys

from catalog.errors import CatalogError
from catalog.store import CATALOG_ENV, build_catalog, resolve_catalog_path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m catalog.cli")
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help=f"build the catalog from the seed if missing (path: --path, ${CATALOG_ENV} or data/catalog.duckdb)")
    b.add_argument("--path", default=None)
    args = parser.parse_args(argv)
    path = resolve_catalog_path(args.path)
    try:
        if path.exists():
            print(f"catalog {path} exists; left untouched (the app checks it when it opens it)")
        else:
            build_catalog(path)
            print(f"built {path} from the embedded seed")
    except CatalogError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
