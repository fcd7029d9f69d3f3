#pragma once
/* Thin C wrappers for the libpipewire method macros and pod builders Swift cannot import. */
#include <pipewire/pipewire.h>
