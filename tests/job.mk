# tests of the job area
