"""Circus Flohcati's visual side: its mat and cards (layout, faces, printing), the scene and the recogniser.

Cards carry an ArUco code each (`vision.flohcati.layout`); recognition reads
the codes and places each card in a zone of the mat (`vision.flohcati.pipeline`).
"""
