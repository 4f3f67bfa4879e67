pub fn _x(){}
pub mod frames;
