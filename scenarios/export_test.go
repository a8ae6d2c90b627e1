package scenarios

// CourseOrder is courseOrder, for the registry's tests.
var CourseOrder = courseOrder
