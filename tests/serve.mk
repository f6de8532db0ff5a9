# tests of the serve part (being written)
