"""``python -m restartkit ARGS...``: the ``restartkit`` command (see ``restartkit._cli``)."""

from __future__ import annotations

import sys

from ._cli import main

if __name__ == "__main__":
    sys.exit(main())
