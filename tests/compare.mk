# tests of the compare part (being written)
