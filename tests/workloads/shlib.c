/* shlib SECONDS PLUGIN: spends SECONDS of CPU in bpwork_hot (libbpwork.so,
 * linked), then dlopens PLUGIN (libbpplugin.so), spends SECONDS in its
 * bpplugin_hot and unloads it again. */
#include "workload.h"

#include <dlfcn.h>

void bpwork_hot(double secs);

int main(int argc, char **argv)
{
  if(argc != 3) {
    fprintf(stderr, "usage: shlib SECONDS PLUGIN\n");
    return 2;
  }
  double secs = wl_arg(argc, argv, 1, 0);
  bpwork_hot(secs);
  void *h = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
  if(!h) {
    fprintf(stderr, "shlib: %s\n", dlerror());
    return 1;
  }
  void (*hot)(double);
  *(void **)&hot = dlsym(h, "bpplugin_hot");
  if(!hot) {
    fprintf(stderr, "shlib: %s\n", dlerror());
    return 1;
  }
  hot(secs);
  dlclose(h);
  return 0;
}
