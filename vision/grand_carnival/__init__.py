"""The Grand Carnival at the table: its print-and-play sheets (`vision.grand_carnival.printing`).

May import `scorer.grand_carnival` and the vision core only. Marker ids and sizes
are in `vision.grand_carnival.layout`.
"""
