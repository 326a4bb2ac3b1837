import sys

from mtlib.book.runner import main

sys.exit(main())
