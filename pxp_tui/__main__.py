from pxp_tui.cli.main import main

raise SystemExit(main())
