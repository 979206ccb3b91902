import sys

from memory_pipeline.cli import main

sys.exit(main())
