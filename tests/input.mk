# tests of the input area
