"""The local web apps: human play (``mtp-gym serve``) and the report viewer (``mtp-gym view``)."""
