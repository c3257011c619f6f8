"""Helpers the tests share: fake API servers, project folders, scripted runs, Pilot drivers."""
