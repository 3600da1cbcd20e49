"""``python -m mtp_gym.cli``: the ``mtp-gym`` program."""

import sys

from mtp_gym.cli.app import main

sys.exit(main())
