import sys

from mtbook.runner import main

sys.exit(main())
