//! What front ends show about sessions, the index and the machine, as text or JSON values:
//! the front end only decides where it goes.

pub mod events;
pub mod index;
pub mod live;
pub mod sessions;
