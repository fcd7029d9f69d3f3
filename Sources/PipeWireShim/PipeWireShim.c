#include "PipeWireShim.h"
