# tests of the export part
