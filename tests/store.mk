# tests of the store part (being written)
