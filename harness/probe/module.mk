# probe: libiscsi client (probe_run.c) plus its pure parts, each tested
LIB_SRCS += harness/probe/probe_run.c harness/probe/probe_opts.c \
	    harness/probe/probe_url.c harness/probe/probe_lat.c \
	    harness/probe/probe_data.c harness/probe/probe_report.c
UNIT_TESTS += tests/unit/harness/probe/test_probe_url.c \
	      tests/unit/harness/probe/test_probe_lat.c \
	      tests/unit/harness/probe/test_probe_data.c \
	      tests/unit/harness/probe/test_probe_report.c \
	      tests/unit/harness/probe/test_probe_run.c
WRAP_harness/probe/test_probe_run := $(foreach s,iscsi_create_context iscsi_destroy_context \
	iscsi_set_log_fn iscsi_set_log_level iscsi_set_targetname \
	iscsi_set_session_type iscsi_set_header_digest iscsi_set_timeout \
	iscsi_set_noautoreconnect iscsi_get_error iscsi_get_fd \
	iscsi_which_events iscsi_connect_sync iscsi_login_sync \
	iscsi_logout_sync iscsi_testunitready_sync iscsi_readcapacity16_sync \
	scsi_datain_unmarshall scsi_free_scsi_task iscsi_read16_task \
	iscsi_write16_task iscsi_service iscsi_set_initiator_username_pwd poll,-Wl,--wrap=$(s))
