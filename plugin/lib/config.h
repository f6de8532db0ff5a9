/* config: being written. */
#ifndef BP_LIB_CONFIG_H
#define BP_LIB_CONFIG_H
#endif
