"""The edges of Ringside: camera sources, OLED displays and buttons behind small interfaces."""
