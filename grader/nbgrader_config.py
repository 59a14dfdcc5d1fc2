# nbgrader configuration for instructors who use nbgrader directly (see README, "Instructors").
# Copy this file to the root of your course folder.
c = get_config()  # noqa: F821 - provided by nbgrader when it loads this file
c.CourseDirectory.course_id = "agent-harness-workshop"
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
c.Execute.timeout = 120  # seconds per cell; the agent-loop checks run several model calls
