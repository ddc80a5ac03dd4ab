from cassc.cli import main

raise SystemExit(main())
