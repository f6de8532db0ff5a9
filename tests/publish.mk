# tests of the publish part (being written)
