/* The one-model runs table of the forms tests (tests/support/forms_one_model.h). */
#include "tests/support/forms_one_model.h"

#include "tests/support/support.h"

/* One model, two boards, two workloads (the `set` column), four loads. */
static const char one_model[] = "run_id,platform,tp,model,active_params_b,running,mean_power_w,set\n"
                                "chat-H100-2,H100,1,M1,8,2,320,chat\n"
                                "chat-H100-8,H100,1,M1,8,8,373,chat\n"
                                "chat-H100-32,H100,1,M1,8,32,520,chat\n"
                                "chat-H100-128,H100,1,M1,8,128,684,chat\n"
                                "code-H100-2,H100,1,M1,8,2,321,code\n"
                                "code-H100-8,H100,1,M1,8,8,378,code\n"
                                "code-H100-32,H100,1,M1,8,32,538,code\n"
                                "code-H100-128,H100,1,M1,8,128,714,code\n"
                                "chat-B200-2,B200,1,M1,8,2,484,chat\n"
                                "chat-B200-8,B200,1,M1,8,8,577,chat\n"
                                "chat-B200-32,B200,1,M1,8,32,835,chat\n"
                                "chat-B200-128,B200,1,M1,8,128,1121,chat\n"
                                "code-B200-2,B200,1,M1,8,2,487,code\n"
                                "code-B200-8,B200,1,M1,8,8,587,code\n"
                                "code-B200-32,B200,1,M1,8,32,866,code\n"
                                "code-B200-128,B200,1,M1,8,128,1175,code\n";

char *
test_forms_one_model(const char *dir)
{
	return test_fixture(dir, "one_model.csv", one_model);
}
