"""The one error a person sees: `UserError`, a problem they can fix, said in one line. The commands raise it (or an
error of their own part, which they turn into one); `flickboard` catches it once (host/cli/main.py), prints it and
exits with status 2."""


class UserError(Exception):
    """A problem the user can fix; str() is one line."""
