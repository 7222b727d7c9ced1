"""The plugin is tested by running pytest inside pytest (`pytester`)."""

pytest_plugins = ["pytester"]
