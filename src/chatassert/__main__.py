"""`python -m chatassert` runs the command line."""

from chatassert._cli import main

raise SystemExit(main())
