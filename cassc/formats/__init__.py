"""Binary formats cassc reads and writes, one module each, declared as structs."""
