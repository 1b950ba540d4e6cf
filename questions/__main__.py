import sys

from questions.cli import main

sys.exit(main())
