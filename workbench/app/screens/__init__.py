"""The app's screens: the main workbench, the help screen and the confirmation dialog."""
