"""The build's steps, one job each; sitebuild/plugin.py calls them, in order."""
