//! Requests become checks: the concrete facts of a request (a call of a named function and
//! what it should give) are turned into a small executable check in the project's language
//! (Python and JavaScript), kept out of the project (the script is the command line). The
//! checks module runs each before the change (it must fail: the reproduction) and after it.

pub(crate) mod facts;
pub(crate) mod locate;
pub(crate) mod script;
