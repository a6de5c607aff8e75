from hz.cli import main

main()
