"""``python -m contactmodes`` runs the command-line interface."""

import sys

from contactmodes.cli import main

sys.exit(main())
