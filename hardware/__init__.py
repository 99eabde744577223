"""The edges of Ringside: camera sources, OLED displays and buttons behind small interfaces.

* `hardware.camera` — the `FrameSource` interface, OpenCV/video/image-folder sources and
  ``open_camera(name)``; `hardware.picamera` — the Raspberry Pi camera (the only module
  that imports picamera2, and only when a camera is opened);
* `hardware.display` — luma.oled panels by name (``ssd1306``, ``sh1106``, ``ssd1309``,
  ``emulator``, ``dummy``) and `Panel`, which redraws only changed frames;
* `hardware.buttons` — gpiozero buttons from a pin map, press and hold events, and a
  keyboard stand-in, by name (``gpio``, ``mock``, ``keyboard``);
* `hardware.fakes` — the stand-ins tests use: a frame list, gpiozero's ``MockFactory``,
  luma's ``dummy``;
* `hardware.errors` — one error class per edge, each also a stdlib type.

Importing ``hardware`` imports none of picamera2, OpenCV, gpiozero or luma.
"""
