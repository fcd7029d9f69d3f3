#include "GlobalExecutorHooks.h"

/* Declared as plain pointers: the real types are swiftcall function pointers. */
extern void *swift_task_enqueueGlobal_hook;
extern void *swift_task_enqueueGlobalWithDelay_hook;
extern void *swift_task_enqueueGlobalWithDeadline_hook;

void swrh_set_global_executor_hooks(void *enqueue_global, void *enqueue_global_with_delay,
                                    void *enqueue_global_with_deadline) {
    swift_task_enqueueGlobal_hook = enqueue_global;
    swift_task_enqueueGlobalWithDelay_hook = enqueue_global_with_delay;
    swift_task_enqueueGlobalWithDeadline_hook = enqueue_global_with_deadline;
}
