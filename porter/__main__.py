from porter.cli.main import main

raise SystemExit(main())
