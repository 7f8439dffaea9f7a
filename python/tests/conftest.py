# SPDX-License-Identifier: Apache-2.0 OR MIT
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
