"""Card recognition: frame -> observation (card codes, confidences, outlines).

Also the synthetic scene renderer used for training and for the table simulator.
"""
