"""Runs the Python block of README.md's "Connect with an SDK" as pasted, against this gateway."""
import os
import re
import sys

readme = open(os.path.join(os.path.dirname(__file__), "..", "..", "..", "README.md")).read()
section = readme.split("## Connect with an SDK", 1)[1]
block = re.search(r"```python\n(.*?)```", section, re.S).group(1)
assert "http://127.0.0.1:8083/" in block
# Over https (the TLS test) the endpoint is the gateway's https one.
code = block.replace("http://127.0.0.1:8083/", os.environ["ACCOUNT_HOST"])
assert os.environ["ACCOUNT_KEY"] in code, "the README shows the gateway's default key"
exec(compile(code, "README.md", "exec"))
sys.stdout.flush()
