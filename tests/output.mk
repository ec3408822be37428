# tests of the output area
