/* A shared object without the flamekit_plugin_init entry point. */
int not_a_plugin(void);
int not_a_plugin(void) { return 42; }
