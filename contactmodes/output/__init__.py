"""Output: the text table and the pictures.
"""
