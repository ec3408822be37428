# pmcstat: build rules go here (see plugins/input/folded/local.mk)
