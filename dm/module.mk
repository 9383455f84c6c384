# The dm multipath table text and the one selector table: shared by
# topologies/ (which selector a file names) and harness/ (the map);
# dm_dev.c, the one owner of device-mapper ioctls (libdevmapper).
LIB_SRCS += dm/dm_table.c dm/selector.c dm/selector_src.c dm/dm_dev.c
UNIT_TESTS += tests/unit/dm/test_dm_table.c tests/unit/dm/test_selector.c tests/unit/dm/test_selector_src.c \
	      tests/unit/dm/test_dm_dev.c
WRAP_dm/test_dm_dev := $(foreach s,dm_task_create dm_task_destroy \
	dm_task_set_name dm_task_set_uuid dm_task_add_target \
	dm_task_set_sector dm_task_set_message dm_task_retry_remove \
	dm_task_run dm_task_get_errno dm_get_next_target dm_task_get_info \
	dm_task_get_uuid dm_task_get_name dm_task_get_names \
	dm_task_update_nodes dm_mknodes dm_udev_set_sync_support \
	dm_log_with_errno_init,-Wl,--wrap=$(s))
