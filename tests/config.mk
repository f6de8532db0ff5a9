# tests of the config part (being written)
