"""The tick: which agents are due, team claims through leases, discovery, and running each wake as a turn."""
