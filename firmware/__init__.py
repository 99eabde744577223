"""The Ringside referee application: command line, main loop, screens, journal."""
