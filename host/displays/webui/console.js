// Console: placeholder, replaced by the operator's console script.
"use strict";
