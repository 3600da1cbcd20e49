"""Data shipped with mtp-gym (installed as ``mtp_gym.assets``): see README.md beside this file."""
