"""``python -m firmware``: the ``ringside`` command."""

from firmware.cli import entry_point

if __name__ == "__main__":  # a spawned helper process (the scoreboard page) imports this module too
    entry_point()
