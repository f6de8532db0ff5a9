# tests of the integration part
